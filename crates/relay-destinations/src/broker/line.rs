//! What the line-based broker codecs (Redis's RESP, NATS's protocol) share:
//! their read error and the reading of one CRLF-terminated line.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// Why a reply could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
    #[error("protocol: {0}")]
    Protocol(&'static str),
}

/// What a line is called in the errors of [`read_line`] (`"a line"`,
/// `"a reply line"`), with the text of each error.
pub struct LineErrors {
    pub no_crlf: &'static str,
    pub not_utf8: &'static str,
}

/// Reads one line of at most `max` bytes ending in CRLF, without its CRLF;
/// the end of the stream before any byte is an `UnexpectedEof`.
pub async fn read_line<R: AsyncBufRead + Unpin + Send>(
    r: &mut R,
    max: usize,
    errors: &LineErrors,
) -> Result<String, ReadError> {
    let mut buf = Vec::new();
    let n = (&mut *r)
        .take(max as u64)
        .read_until(b'\n', &mut buf)
        .await?;
    if n == 0 {
        return Err(ReadError::Io(std::io::ErrorKind::UnexpectedEof.into()));
    }
    if !buf.ends_with(b"\r\n") {
        return Err(ReadError::Protocol(errors.no_crlf));
    }
    buf.truncate(buf.len() - 2);
    String::from_utf8(buf).map_err(|_| ReadError::Protocol(errors.not_utf8))
}
