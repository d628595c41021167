package relay

// Iter goes through every item of a paginated list, fetching a page when
// the previous one is used up (each page's next_after is the next
// request's after):
//
//	it := client.Messages.List(ctx, &relay.MessagesListParams{EventID: &id})
//	for it.Next() {
//		message := it.Item()
//	}
//	if err := it.Err(); err != nil { … }
type Iter[T any] struct {
	fetch func(after *string) ([]T, *string, error)
	after *string
	page  []T
	item  T
	done  bool
	err   error
}

func newIter[T any](after *string, fetch func(after *string) ([]T, *string, error)) *Iter[T] {
	return &Iter[T]{fetch: fetch, after: after}
}

// Next advances to the next item, fetching the next page when needed; it
// is false at the end of the list or after an error (see Err).
func (it *Iter[T]) Next() bool {
	for len(it.page) == 0 {
		if it.done || it.err != nil {
			return false
		}
		page, next, err := it.fetch(it.after)
		if err != nil {
			it.err = err
			return false
		}
		// The last page has no next_after. A page may hold fewer items
		// than asked, or none, and still name the next; a cursor that does
		// not move on ends the list.
		it.done = next == nil || (it.after != nil && *next == *it.after)
		it.page, it.after = page, next
	}
	it.item, it.page = it.page[0], it.page[1:]
	return true
}

// Item is the current item (after Next returned true).
func (it *Iter[T]) Item() T { return it.item }

// Err is the error that stopped the iteration, if any.
func (it *Iter[T]) Err() error { return it.err }

// All collects the remaining items.
func (it *Iter[T]) All() ([]T, error) {
	var items []T
	for it.Next() {
		items = append(items, it.Item())
	}
	return items, it.Err()
}
