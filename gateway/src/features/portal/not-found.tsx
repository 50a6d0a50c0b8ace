// A portal path that names nothing of this partner's (another client's subscription among them):
// the same page whether it exists for someone else or not at all.
import type { RequestHandler } from 'express';
import { sendPage } from '../../pages/layout.js';
import { PortalPage } from './portal-page.js';
import { PORTAL } from './portal-paths.js';

export const NotFound: RequestHandler = async (req, res) => {
  await sendPage(
    res,
    <PortalPage req={req} res={res} title="Not found" current="">
      <p>
        There is nothing here for your client.{' '}
        <a href={`${PORTAL}/overview`}>Back to the overview</a>.
      </p>
    </PortalPage>,
    404,
  );
};
