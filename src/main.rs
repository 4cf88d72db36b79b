fn main() {
    std::process::exit(mparray::cli::main());
}
