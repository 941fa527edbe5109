"""What hides a finding: inline ``# vlint: disable`` comments and annotations, writing them
(``--add-suppressions``), and the baseline file. Imports vlint.engine and below."""
