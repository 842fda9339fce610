"""What a user sees of a job: progress bars, the Estimate and JobSummary lines and tables, the
background job's view."""
