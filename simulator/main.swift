print("healthsim: not yet implemented")
