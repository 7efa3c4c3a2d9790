"""Suite for the 'endpoints' spec part."""
