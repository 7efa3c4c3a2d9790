"""Suite for the 'limits' spec part."""
