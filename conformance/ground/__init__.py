"""The ground floor: what every other floor stands on.

The target's profile and the options that resolve it, the adapter's hook specs, where the data
files are, the configuration locks, the stop signal and exit codes, secrets and their
redaction. Nothing here imports another folder of the kit.
"""
