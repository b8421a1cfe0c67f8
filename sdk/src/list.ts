// What every `list` returns: awaited, the first page; iterated with `for await`, every item of
// every page, the next page fetched when the current one is used up (`starting_after` the last id;
// with `ending_before` given, backwards through `ending_before` the first id).
import type { ApiResponse } from './http';

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

type Cursors = { starting_after?: string; ending_before?: string };

export class ListPromise<T extends { id: string }, P extends Page<T>, Q extends Cursors> implements Promise<ApiResponse<P>>, AsyncIterable<T> {
  /** A Promise to whatever takes one: `Promise.all`, an `async` function's `return`, ... */
  readonly [Symbol.toStringTag] = 'ListPromise';
  private first: Promise<ApiResponse<P>> | undefined;

  constructor(private readonly fetchPage: (params: Q) => Promise<ApiResponse<P>>, private readonly params: Q) {}

  /** The first page is requested when the list is first awaited or iterated, once. */
  private firstPage(): Promise<ApiResponse<P>> {
    this.first ??= this.fetchPage(this.params);
    return this.first;
  }

  then<A = ApiResponse<P>, B = never>(onfulfilled?: ((page: ApiResponse<P>) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<ApiResponse<P> | B> {
    return this.firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<ApiResponse<P>> {
    return this.firstPage().finally(onfinally);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const backwards = this.params.ending_before !== undefined;
    let page: P = await this.firstPage();
    for (;;) {
      yield* page.data;
      if (!page.has_more || page.data.length === 0) return;
      const cursor: Cursors = backwards ? { ending_before: page.data[0]!.id } : { starting_after: page.data[page.data.length - 1]!.id };
      const { starting_after: _after, ending_before: _before, ...filters } = this.params;
      page = await this.fetchPage({ ...filters, ...cursor } as Q);
    }
  }

  /** Every item of every page, up to `limit` (required, so that a large account does not fill memory by accident). */
  async toArray({ limit }: { limit: number }): Promise<T[]> {
    const items: T[] = [];
    if (limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
