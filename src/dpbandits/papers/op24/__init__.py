"""op24: the modules of one paper."""
