"""What every room shares: background workers and operations, file choosers, errors, settings."""
