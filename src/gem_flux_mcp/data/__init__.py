"""Reference data: ModelSEED biochemistry index, data bundle download and verification."""
