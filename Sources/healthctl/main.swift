print("healthctl: not yet implemented")
