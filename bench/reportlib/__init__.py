"""bench/report's parts: rawdata, figures, floors, markdown, plot; decide (not used yet)."""
