"""The weekly health review: computed from change events and refs, signed off by a reviewer."""
