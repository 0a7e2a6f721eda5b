import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';
import { SiteFooter } from '../../../components/site-footer';
import { SiteHeader } from '../../../components/site-header';
import section from '../../../components/section.module.css';
import { buttonClass } from '../../../components/button';
import { SkipLink } from '../../../components/skip-link';

/** A public page beside the landing page: the brand, one heading, the content, the footer. */
export function InfoPage({
  title,
  lead,
  children,
}: {
  title: string;
  lead?: ReactNode;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · HumanTest`;
    // A page opened from a link starts at its top (the router keeps the scroll position).
    window.scrollTo(0, 0);
  }, [title]);
  return (
    <div className="landing info-page">
      <SkipLink />
      <SiteHeader>
        <Link className={buttonClass('primary')} to="/#job-request">
          Get Your Site Tested
        </Link>
      </SiteHeader>
      <main id="main" tabIndex={-1} className={section.section}>
        <div className="container container--narrow">
          <h1>{title}</h1>
          {lead ? <p className={section.section__lead}>{lead}</p> : null}
          {children}
        </div>
      </main>
      <SiteFooter />
    </div>
  );
}
