/**
 * The ticket pages on the hosted pages (D421): the buyer's page of an order
 * and a ticket holder's page, each with its PDF and one Wallet pass per
 * scannable ticket underneath its own signed address:
 *   /my-tickets/order/<order id>/<token>[/tickets.pdf | /passes/<ticket id>.pkpass]
 *   /my-tickets/ticket/<organisation id>/<ticket id>/<token>[/tickets.pdf | /passes/<ticket id>.pkpass]
 * A download is made from the page's tickets as they are now, so a
 * transferred, refunded or voided ticket is not in it.
 */
import express, { type Response } from 'express';
import { HOLDER_TICKET_PAGE_PATH, ORDER_TICKET_PAGE_PATH, type Logger } from '@partner-api/shared';
import { isScannable, type TicketPage, type TicketPages } from '../domain/ticket-pages';
import { ticketPageHtml, ticketPageMissing } from './ticket-page-html';
import { ticketsPdf } from './ticket-pdf';
import type { WalletPasses } from './wallet-passes';

const PASS_FILE = /^([1-9]\d{0,17})\.pkpass$/;

type PageLoader = (params: Record<string, string>) => Promise<TicketPage | undefined>;

function notFound(res: Response): void {
  res.status(404).type('html').send(ticketPageMissing());
}

export function ticketPagesRouter(pages: TicketPages, passes: WalletPasses | undefined, logger: Logger): express.Router {
  const router = express.Router();

  function serve(pagePath: string, load: PageLoader): void {
    router.get(pagePath, async (req, res) => {
      const page = await load(req.params as Record<string, string>);
      if (!page) return notFound(res);
      // Downloads live under the page's own address, which is their capability too.
      const here = req.path.replace(/\/$/, '');
      const links = { pdf: `${here}/tickets.pdf`, pass: passes && ((id: bigint) => `${here}/passes/${id}.pkpass`) };
      res.type('html').send(await ticketPageHtml(page, links));
    });

    router.get(`${pagePath}/tickets.pdf`, async (req, res) => {
      const page = await load(req.params as Record<string, string>);
      const tickets = page?.tickets.filter(isScannable) ?? [];
      if (!page || tickets.length === 0) return notFound(res);
      res.type('application/pdf').attachment('tickets.pdf').send(await ticketsPdf(page.event, tickets));
    });

    router.get(`${pagePath}/passes/:file`, async (req, res) => {
      const wanted = PASS_FILE.exec(String(req.params.file))?.[1];
      const page = wanted && passes ? await load(req.params as Record<string, string>) : undefined;
      const ticket = page?.tickets.find((candidate) => candidate.id.toString() === wanted && isScannable(candidate));
      if (!page || !ticket || !passes) return notFound(res);
      try {
        res.type('application/vnd.apple.pkpass').attachment(`ticket-${ticket.id}.pkpass`).send(passes.forTicket(ticket, page.event));
      } catch (error) {
        logger.error({ err: error, ticketId: ticket.id.toString() }, 'wallet pass could not be made');
        throw error;
      }
    });
  }

  serve(`${ORDER_TICKET_PAGE_PATH}/:orderId/:token`, (params) => pages.forOrder(params.orderId!, params.token!));
  serve(`${HOLDER_TICKET_PAGE_PATH}/:organisationId/:ticketId/:token`, (params) => pages.forHolder(params.organisationId!, params.ticketId!, params.token!));
  return router;
}
