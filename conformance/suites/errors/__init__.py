"""Suite for the 'errors' spec part."""
