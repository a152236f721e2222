"""SCNN and its dense baselines DCNN / DCNN-opt (Parashar et al., ISCA 2017)."""
