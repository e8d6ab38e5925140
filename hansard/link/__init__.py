"""The link stage after the store: repository resolution and landing commits. Git only through hansard.git."""
