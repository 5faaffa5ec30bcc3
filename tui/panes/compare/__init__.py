"""The Compare tab: its widget (pane.py, its CSS in ``DEFAULT_CSS``) and its pure view functions (views.py)."""
