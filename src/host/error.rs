//! What can go wrong in the host layer. zkit's own error type converts it
//! and words every refusal in `src/error.rs`; the texts here describe
//! internal errors, for the log and as the detail of an internal-error
//! reply.

/// A failure the host layer reports to the code above it.
#[derive(Debug, Clone, PartialEq)]
pub enum HostError {
    /// A key holds another type than the caller works on.
    WrongType,
    /// A call with the wrong number of arguments for the named command (the
    /// server checks too, but RM_Call from other modules may not).
    Arity(&'static str),
    /// Code run for the server panicked; the panic was caught and logged.
    Panicked { what: String, reason: String },
    /// The server has no command of this name, which zkit runs or
    /// replicates its writes as: an operator renamed or disabled it
    /// (`rename-command`). Refused before anything was written.
    CommandUnavailable(&'static str),
    /// The server answered something unexpected; the text says what.
    Internal(String),
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostError::WrongType => f.write_str("a key holds the wrong kind of value"),
            HostError::Arity(command) => write!(f, "wrong number of arguments for '{command}'"),
            HostError::Panicked { what, reason } => write!(f, "{what} panicked: {reason}"),
            HostError::CommandUnavailable(command) => {
                write!(
                    f,
                    "the server has no command named {command} (rename-command)"
                )
            }
            HostError::Internal(message) => f.write_str(message),
        }
    }
}
