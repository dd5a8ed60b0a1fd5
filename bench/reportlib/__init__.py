"""bench/report's parts: rawdata, figures, markdown, plot."""
