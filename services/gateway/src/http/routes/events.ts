/** Catalog endpoints, served by the inventory service. */
import { Router } from 'express';
import { gen, toApiJson, type RequestContext, type ServiceClient } from '@partner-api/shared';
import { errorResponse, jsonResponse, registerOperation } from '../../openapi/registry';
import { EventSchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { requireScope } from '../middleware/require-scope';

type InventoryClient = ServiceClient<(typeof gen.inventory.InventoryService)['method']>;

const EventIdParam = z.object({
  id: z.string().min(1).max(200).openapi({ description: 'Event id (integer) or slug.', example: 'midnight-oil-reunion' }),
});

registerOperation({
  method: 'get',
  path: '/events/{id}',
  summary: 'Retrieve an event',
  request: { params: EventIdParam },
  responses: {
    200: jsonResponse('The event.', EventSchema),
    404: errorResponse('No event with that id or slug in the organisation.'),
  },
});

export function eventRoutes(inventory: InventoryClient): Router {
  const router = Router();
  router.get('/events/:id', requireScope('events:read'), async (req, res) => {
    const { id } = EventIdParam.parse(req.params);
    const event = await inventory.getEvent({ idOrSlug: id }, res.locals.ctx as RequestContext);
    res.json(toApiJson(gen.inventory.EventSchema, event));
  });
  return router;
}
