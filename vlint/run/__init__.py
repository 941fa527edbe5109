"""One lint run: read the files (once, confined), extract launches, resolve, check, suppress, and
collect the report. Imports vlint.suppression and below."""
