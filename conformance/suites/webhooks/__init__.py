"""Suite for the 'webhooks' spec part."""
