"""The protector effect kinds, one module each (see `base`)."""
