/** a knowledge graph kept between sessions */
declare namespace memory {
// Add new observations to existing entities in the knowledge graph
function add_observations(args: {
  observations: {
    contents: string[]; // An array of observation contents to add
    entityName: string; // The name of the entity to add the observations to
  }[];
}): Promise<ToolResult<{ results: { addedObservations: string[]; entityName: string }[] }>>;
// Create multiple new entities in the knowledge graph
function create_entities(args: {
  entities: {
    entityType: string; // The type of the entity
    name: string; // The name of the entity
    observations: string[]; // An array of observation contents associated with the entity
  }[];
}): Promise<ToolResult<{
  entities: {
    entityType: string; // The type of the entity
    name: string; // The name of the entity
    observations: string[]; // An array of observation contents associated with the entity
  }[];
}>>;
// Create multiple new relations between entities in the knowledge graph. Relations should be in active voice
function create_relations(args: {
  relations: {
    from: string; // The name of the entity where the relation starts
    relationType: string; // The type of the relation
    to: string; // The name of the entity where the relation ends
  }[];
}): Promise<ToolResult<{
  relations: {
    from: string; // The name of the entity where the relation starts
    relationType: string; // The type of the relation
    to: string; // The name of the entity where the relation ends
  }[];
}>>;
// Delete multiple entities and their associated relations from the knowledge graph
function delete_entities(args: {
  entityNames: string[]; // An array of entity names to delete
}): Promise<ToolResult<{ message: string; success: boolean }>>;
// Delete specific observations from entities in the knowledge graph
function delete_observations(args: {
  deletions: {
    entityName: string; // The name of the entity containing the observations
    observations: string[]; // An array of observations to delete
  }[];
}): Promise<ToolResult<{ message: string; success: boolean }>>;
// Delete multiple relations from the knowledge graph
function delete_relations(args: {
  // An array of relations to delete
  relations: {
    from: string; // The name of the entity where the relation starts
    relationType: string; // The type of the relation
    to: string; // The name of the entity where the relation ends
  }[];
}): Promise<ToolResult<{ message: string; success: boolean }>>;
// Open specific nodes in the knowledge graph by their names
function open_nodes(args: {
  names: string[]; // An array of entity names to retrieve
}): Promise<ToolResult<{
  entities: {
    entityType: string; // The type of the entity
    name: string; // The name of the entity
    observations: string[]; // An array of observation contents associated with the entity
  }[];
  relations: {
    from: string; // The name of the entity where the relation starts
    relationType: string; // The type of the relation
    to: string; // The name of the entity where the relation ends
  }[];
}>>;
// Read the entire knowledge graph
function read_graph(): Promise<ToolResult<{
  entities: {
    entityType: string; // The type of the entity
    name: string; // The name of the entity
    observations: string[]; // An array of observation contents associated with the entity
  }[];
  relations: {
    from: string; // The name of the entity where the relation starts
    relationType: string; // The type of the relation
    to: string; // The name of the entity where the relation ends
  }[];
}>>;
// Search for nodes in the knowledge graph based on a query
function search_nodes(args: {
  query: string; // The search query to match against entity names, types, and observation content
}): Promise<ToolResult<{
  entities: {
    entityType: string; // The type of the entity
    name: string; // The name of the entity
    observations: string[]; // An array of observation contents associated with the entity
  }[];
  relations: {
    from: string; // The name of the entity where the relation starts
    relationType: string; // The type of the relation
    to: string; // The name of the entity where the relation ends
  }[];
}>>;
}
