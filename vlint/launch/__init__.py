"""A launch resolved: the Deployment the checks read, how an Invocation becomes one (release, model,
GPU, defaults), and its memory answers (the model's inputs, status, reference-GPU fits). Imports
vlint.memory, vlint.resolve, vlint.sources, vlint.argspec and below."""
