// HealthServer: filled in by its issue.
