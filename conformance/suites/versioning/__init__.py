"""Suite for the 'versioning' spec part."""
