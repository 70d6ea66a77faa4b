"""The `gem-flux` command line."""
