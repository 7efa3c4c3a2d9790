"""Suite for the 'resources' spec part."""
