fn main() {
    let code = mparray::cli::main();
    mparray::cli::exit(code)
}
