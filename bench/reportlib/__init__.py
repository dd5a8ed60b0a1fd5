"""bench/report's parts: config (links, candidates, settings, plan), rawdata
(raw files -> rows), figures (per-round figures and their spread), decide
(the sign-flip test), rule (the decision rule applied to a run), floors,
markdown and sections (report.md), plot."""
