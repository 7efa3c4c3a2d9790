"""What a run writes: summaries, redaction of secrets, skip reasons, waivers, baselines,
the Allure report, exchange records and signed certification bundles."""
