"""The catalogue itself, free of any framework: model, loader and the rules derived from the data."""
