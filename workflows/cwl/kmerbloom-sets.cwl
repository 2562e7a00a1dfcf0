#!/usr/bin/env cwl-runner
# kmerbloom sets as a CWL tool: one set operation on sorted k-mer count files,
# with its statistics and MultiQC row. No JavaScript (runs without node.js).
#   cwltool --no-container kmerbloom-sets.cwl job.yml
cwlVersion: v1.2
class: CommandLineTool
label: kmerbloom sets
doc: |
  Union, intersection, difference (k-mers of the first set absent from the
  others) or counter subtraction of exact k-mer sets with counts: TSV or KFF
  files from kmerbloom count, merge-counts or kmc -okff, sorted by k-mer.
  One streaming merge; memory does not grow with the sets. The manual:
  docs/sets.md.
baseCommand: [kmerbloom, sets]
hints:
  SoftwareRequirement:
    packages:
      kmerbloom:
        version: ["0.1.0"]
requirements:
  ResourceRequirement:
    coresMin: $(inputs.threads)
    ramMin: 200
inputs:
  operation:
    type:
      type: enum
      symbols: [union, intersect, diff, subtract]
    inputBinding: {position: 1}
  sets:
    type: File[]
    doc: sorted k-mer count files (TSV or KFF, plain or gzip); diff and subtract take from the first
    inputBinding: {position: 2}
  name:
    type: string
    default: sets
    doc: names the outputs (NAME.tsv or NAME.kff, NAME.stats.json) and the sample in MultiQC
  format:
    type:
      type: enum
      symbols: [tsv, kff]
    default: tsv
    inputBinding: {prefix: --format}
  counts:
    type: string?
    doc: "union: sum (default), min, max; intersect: min (default), max, sum, first, last"
    inputBinding: {prefix: --counts}
  input_min_count:
    type: int?
    doc: every input's k-mers counted less often are left out first (KMC's -ci on inputs)
    inputBinding: {prefix: --input-min-count}
  input_max_count:
    type: long?
    inputBinding: {prefix: --input-max-count}
  min_count:
    type: int?
    doc: result k-mers counted less often are not written
    inputBinding: {prefix: --min-count}
  max_count:
    type: long?
    inputBinding: {prefix: --max-count}
  presence:
    type: boolean
    default: false
    doc: write count 1 for every k-mer of the result
    inputBinding: {prefix: --presence}
  threads:
    type: int
    default: 2
    inputBinding: {prefix: --threads}
arguments:
  - {prefix: --output, valueFrom: $(inputs.name).$(inputs.format)}
  - {prefix: --stats, valueFrom: $(inputs.name).stats.json}
  - {prefix: --sample, valueFrom: $(inputs.name)}
outputs:
  result:
    type: File
    doc: the resulting k-mers with their counts, sorted by k-mer
    outputBinding: {glob: $(inputs.name).$(inputs.format)}
  stats:
    type: File
    outputBinding: {glob: $(inputs.name).stats.json}
  multiqc:
    type: File
    doc: NAME.stats_mqc.json, read by `multiqc .`
    outputBinding: {glob: $(inputs.name).stats_mqc.json}
