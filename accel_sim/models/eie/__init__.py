"""EIE: sparse matrix x sparse vector engine (Han et al., ISCA 2016)."""
