// HealthClient: filled in by its issue.
