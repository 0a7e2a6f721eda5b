// Component tests load lazy chunks (dashboards, landing forms) through dynamic import: on a busy
// CI machine that can take longer than Testing Library's default 1 s wait for findBy*/waitFor.
import { configure } from '@testing-library/react';

configure({ asyncUtilTimeout: 10_000 });
