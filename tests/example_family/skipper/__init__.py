"""``skipper``: the minimal example family of ``docs/adding_a_model.md`` (a tested walkthrough)."""
