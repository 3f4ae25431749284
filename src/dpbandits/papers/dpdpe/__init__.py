"""dpdpe: the modules of one paper."""
