"""The run pipeline: the catalog of models (the arch spec and the family registry assembled from one
list), ``simulate`` (plan, count, cost), sweeps, reports, figures and traces."""
