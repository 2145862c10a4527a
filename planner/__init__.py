"""The planner (`make plan`, `python -m planner`): a load and a lookup rate on each table mode, before paying."""
