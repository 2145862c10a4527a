"""The planner (`make plan`, `python -m fencepost.plan`): a load and a lookup rate on each table mode, before paying."""
