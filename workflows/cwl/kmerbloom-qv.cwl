#!/usr/bin/env cwl-runner
# kmerbloom qv as a CWL tool: an assembly's QV, per-sequence QV, k-mer
# completeness and spectra-cn table in Merqury's files, with statistics and
# a MultiQC custom content file. No JavaScript (runs without node.js).
#   cwltool --no-container kmerbloom-qv.cwl job.yml
cwlVersion: v1.2
class: CommandLineTool
label: kmerbloom qv
doc: |
  Scores an assembly against the k-mer counts of its reads (kmerbloom count
  -c 1, TSV or KFF, or kmc -okff; k is the file's) as Merqury does: QV from
  the assembly k-mers absent from the reads, completeness from the reads'
  solid k-mers (threshold: the first valley of the read histogram unless
  given), the spectra-cn table. Outputs are named as Merqury's spectra-cn.sh
  names them, with NAME the assembly file's name without .fa/.fasta/.gz.
  Memory: ram_mb is both the job's RAM request and qv's -M budget.
baseCommand: [kmerbloom, qv]
hints:
  SoftwareRequirement:
    packages:
      kmerbloom:
        version: ["0.1.0"]
requirements:
  ResourceRequirement:
    coresMin: $(inputs.threads)
    ramMin: $(inputs.ram_mb)
inputs:
  assembly:
    type: File
    doc: assembly FASTA, plain or gzip
    inputBinding: {position: 10}
  read_counts:
    type: File
    doc: sorted k-mer counts of the reads, every k-mer (count -c 1)
    inputBinding: {prefix: --reads}
  prefix:
    type: string
    default: qv
    doc: prefix of the output files; also the sample name in MultiQC
  solid_threshold:
    type: int?
    doc: read k-mers seen more often are solid (default Merqury's choice)
    inputBinding: {prefix: --solid-threshold}
  threads:
    type: int
    default: 2
    inputBinding: {prefix: --threads}
  ram_mb:
    type: int
    default: 2000
    doc: RAM of the job in MiB, passed to qv as -M
    inputBinding: {prefix: --max-memory, valueFrom: $(self)M}
arguments:
  - {prefix: --output, valueFrom: $(inputs.prefix)}
  - {prefix: --stats, valueFrom: $(inputs.prefix).qv.json}
  - {prefix: --sample, valueFrom: $(inputs.prefix)}
outputs:
  qv:
    type: File
    doc: NAME, missing k-mers, k-mers, QV, error rate
    outputBinding: {glob: $(inputs.prefix).qv}
  per_sequence_qv:
    type: File
    doc: one line per sequence, the columns of the overall file
    outputBinding: {glob: "$(inputs.prefix).*.qv"}
  completeness:
    type: File
    outputBinding: {glob: $(inputs.prefix).completeness.stats}
  spectra_cn:
    type: File[]
    doc: PREFIX.NAME.spectra-cn.hist and PREFIX.NAME.only.hist, for Merqury's plot_spectra_cn.R
    outputBinding: {glob: "$(inputs.prefix).*.*.hist"}
  stats:
    type: File
    outputBinding: {glob: $(inputs.prefix).qv.json}
  multiqc:
    type: File
    doc: PREFIX.qv_mqc.json, read by `multiqc .`
    outputBinding: {glob: $(inputs.prefix).qv_mqc.json}
