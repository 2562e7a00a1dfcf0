// kmerbloom profile as an nf-core style module: the genome profile (haploid
// length, heterozygosity and its forms, repeats, error rate, k-mer coverage)
// fitted to one sample's k-mer spectrum. The spectrum is the statistics JSON
// of KMERBLOOM_COUNT (its k read from it), or a histogram with its k in
// ext.args. ext.args takes any other profile option, e.g. '-p 4' or
// '-k 21 -p 2' (a jellyfish or KMC histogram).
process KMERBLOOM_PROFILE {
    tag "$meta.id"
    label 'process_single'

    // As KMERBLOOM_COUNT: environment.yml names the package kmerbloom will
    // have; the image is built from the Containerfile in its sources.
    conda "${moduleDir}/environment.yml"
    container 'kmerbloom:0.1.0'

    input:
    tuple val(meta), path(spectrum)

    output:
    tuple val(meta), path("*.profile.txt") , emit: summary   // GenomeScope's summary layout
    tuple val(meta), path("*.profile.json"), emit: json
    tuple val(meta), path("*.profile.svg") , emit: plot
    tuple val(meta), path("*.profile.html"), emit: report
    tuple val(meta), path("*_mqc.json")    , emit: multiqc   // MultiQC general statistics: genome length, heterozygosity
    path "versions.yml"                    , emit: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    def args = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    kmerbloom profile \\
        $args \\
        -o ${prefix}.profile.txt \\
        --stats ${prefix}.profile.json \\
        --plot ${prefix}.profile.svg \\
        --report ${prefix}.profile.html \\
        --sample ${prefix} \\
        $spectrum

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        kmerbloom: \$(kmerbloom --version | sed 's/^kmerbloom //')
    END_VERSIONS
    """

    stub:
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    touch ${prefix}.profile.txt ${prefix}.profile.svg ${prefix}.profile.html
    echo '{}' > ${prefix}.profile.json
    echo '{}' > ${prefix}.profile_mqc.json

    cat <<-END_VERSIONS > versions.yml
    "${task.process}":
        kmerbloom: \$(kmerbloom --version | sed 's/^kmerbloom //')
    END_VERSIONS
    """
}
