"""Suite for the 'auth' spec part."""
