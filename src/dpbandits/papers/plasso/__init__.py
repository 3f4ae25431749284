"""plasso: the modules of one paper."""
