"""Communities of stored models on MICOM, one module per use case: `build.py` (build_community:
members checked, community stored), `job.py` (what every community job shares: the stored
community loaded, members checked against their stored files, the MICOM community built in the
worker), `growth.py` (run_community), `knockouts.py` (community_knockouts), `medium.py`
(community_minimal_medium), `stored.py` (list_communities, delete_community), `samples.py`
(many samples as one Dask batch, `gem-flux community --samples`)."""
