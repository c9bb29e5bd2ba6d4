import HealthSimulator
print("healthsim: not yet implemented")
