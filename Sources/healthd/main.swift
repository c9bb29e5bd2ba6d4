print("healthd: not yet implemented")
