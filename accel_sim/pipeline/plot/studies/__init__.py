"""The studies' figures, one module per study: each takes the study's results frame (and the
published values it draws as references) and returns a Figure."""
