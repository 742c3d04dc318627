"""The main screen's panes, and what their keys do."""
