//! [`Pager`]: a list as a sequence of items, fetched a page at a time.

use std::collections::VecDeque;

use futures_core::Stream;

use crate::{Client, Error, Operation, Page};

/// Every item of a list, following `next_after` page by page.
///
/// ```no_run
/// # async fn run(relay: relay_sdk::Client) -> Result<(), relay_sdk::Error> {
/// let mut consumers = relay.consumers().list();
/// while let Some(consumer) = consumers.next().await {
///     println!("{}", consumer?.id);
/// }
/// # Ok(()) }
/// ```
///
/// [`Pager::into_stream`] gives a `futures` `Stream` of the same items,
/// and [`Pager::all`] collects them.
pub struct Pager<T> {
    client: Client,
    op: Operation<Page<T>>,
    buffer: VecDeque<T>,
    after: Option<String>,
    done: bool,
}

impl<T> std::fmt::Debug for Pager<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pager")
            .field("op", &self.op)
            .field("after", &self.after)
            .field("buffered", &self.buffer.len())
            .field("done", &self.done)
            .finish()
    }
}

impl<T> Pager<T> {
    pub(crate) fn new(client: Client, op: Operation<Page<T>>) -> Self {
        Pager {
            client,
            op,
            buffer: VecDeque::new(),
            after: None,
            done: false,
        }
    }

    /// The next item (`None` after the last; an error ends the list).
    pub async fn next(&mut self) -> Option<Result<T, Error>> {
        loop {
            if let Some(item) = self.buffer.pop_front() {
                return Some(Ok(item));
            }
            if self.done {
                return None;
            }
            let mut op = self.op.clone();
            if let Some(after) = &self.after {
                op.set_query("after", after.clone());
            }
            match self.client.send(op).await {
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Ok(page) => {
                    // A page may hold fewer items than asked, or none,
                    // and still name the next; a cursor that does not
                    // move on ends the list.
                    self.done = page.next_after.is_none() || page.next_after == self.after;
                    self.after = page.next_after;
                    self.buffer.extend(page.data);
                }
            }
        }
    }

    /// Every (remaining) item.
    pub async fn all(mut self) -> Result<Vec<T>, Error> {
        let mut out = Vec::new();
        while let Some(item) = self.next().await {
            out.push(item?);
        }
        Ok(out)
    }

    /// The items as a `futures` `Stream`.
    pub fn into_stream(self) -> impl Stream<Item = Result<T, Error>> {
        futures_util::stream::unfold(self, |mut pager| async move {
            pager.next().await.map(|item| (item, pager))
        })
    }
}
