import '../../../test/setup';
import { describe, expect, it } from '@jest/globals';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Pager } from './pager';
import { usePagedSearch } from './use-paged-search';

/** A list of `total` entries, 10 a page, with the shared search box and pager. */
function PagedList({ total }: { total: number }) {
  const paged = usePagedSearch(10);
  return (
    <>
      <label>
        Search
        <input {...paged.input} />
      </label>
      <p>
        page {paged.page}, search “{paged.search}”
      </p>
      <Pager page={paged.page} pages={paged.pagesOf(total)} onPage={paged.setPage} />
    </>
  );
}

describe('usePagedSearch and Pager', () => {
  it('pages through the list and goes back to page 1 when the search changes', async () => {
    render(<PagedList total={25} />);
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Previous' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByText('Page 3 of 3')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Next' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('Search'), ' zed ');
    expect(screen.getByText('page 1, search “zed”')).toBeTruthy();
  });

  it('shows no pager when the list fits on one page', () => {
    render(<PagedList total={10} />);
    expect(screen.queryByRole('button', { name: 'Next' })).toBeNull();
  });
});
