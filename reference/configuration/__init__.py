"""Platform configuration (§2 PlatformConfig, §4 Platform configuration)."""
