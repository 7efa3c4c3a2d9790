"""Suite for the 'transitions' spec part."""
