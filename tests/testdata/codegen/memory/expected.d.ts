/** a knowledge graph kept between sessions */
declare namespace memory {
/** Add new observations to existing entities in the knowledge graph */
function add_observations(args: {
  observations: {
    /** An array of observation contents to add */ contents: string[];
    /** The name of the entity to add the observations to */ entityName: string;
  }[];
}): Promise<ToolResult<{ results: { addedObservations: string[]; entityName: string }[] }>>;
/** Create multiple new entities in the knowledge graph */
function create_entities(args: {
  entities: {
    /** The type of the entity */ entityType: string;
    /** The name of the entity */ name: string;
    /** An array of observation contents associated with the entity */ observations: string[];
  }[];
}): Promise<
  ToolResult<{
    entities: {
      /** The type of the entity */ entityType: string;
      /** The name of the entity */ name: string;
      /** An array of observation contents associated with the entity */ observations: string[];
    }[];
  }>
>;
/** Create multiple new relations between entities in the knowledge graph. Relations should be in active voice */
function create_relations(args: {
  relations: {
    /** The name of the entity where the relation starts */ from: string;
    /** The type of the relation */ relationType: string;
    /** The name of the entity where the relation ends */ to: string;
  }[];
}): Promise<
  ToolResult<{
    relations: {
      /** The name of the entity where the relation starts */ from: string;
      /** The type of the relation */ relationType: string;
      /** The name of the entity where the relation ends */ to: string;
    }[];
  }>
>;
/** Delete multiple entities and their associated relations from the knowledge graph */
function delete_entities(args: {
  /** An array of entity names to delete */ entityNames: string[];
}): Promise<ToolResult<{ message: string; success: boolean }>>;
/** Delete specific observations from entities in the knowledge graph */
function delete_observations(args: {
  deletions: {
    /** The name of the entity containing the observations */ entityName: string;
    /** An array of observations to delete */ observations: string[];
  }[];
}): Promise<ToolResult<{ message: string; success: boolean }>>;
/** Delete multiple relations from the knowledge graph */
function delete_relations(args: {
  /** An array of relations to delete */
  relations: {
    /** The name of the entity where the relation starts */ from: string;
    /** The type of the relation */ relationType: string;
    /** The name of the entity where the relation ends */ to: string;
  }[];
}): Promise<ToolResult<{ message: string; success: boolean }>>;
/** Open specific nodes in the knowledge graph by their names */
function open_nodes(args: {
  /** An array of entity names to retrieve */ names: string[];
}): Promise<
  ToolResult<{
    entities: {
      /** The type of the entity */ entityType: string;
      /** The name of the entity */ name: string;
      /** An array of observation contents associated with the entity */ observations: string[];
    }[];
    relations: {
      /** The name of the entity where the relation starts */ from: string;
      /** The type of the relation */ relationType: string;
      /** The name of the entity where the relation ends */ to: string;
    }[];
  }>
>;
/** Read the entire knowledge graph */
function read_graph(): Promise<
  ToolResult<{
    entities: {
      /** The type of the entity */ entityType: string;
      /** The name of the entity */ name: string;
      /** An array of observation contents associated with the entity */ observations: string[];
    }[];
    relations: {
      /** The name of the entity where the relation starts */ from: string;
      /** The type of the relation */ relationType: string;
      /** The name of the entity where the relation ends */ to: string;
    }[];
  }>
>;
/** Search for nodes in the knowledge graph based on a query */
function search_nodes(args: {
  /** The search query to match against entity names, types, and observation content */
  query: string;
}): Promise<
  ToolResult<{
    entities: {
      /** The type of the entity */ entityType: string;
      /** The name of the entity */ name: string;
      /** An array of observation contents associated with the entity */ observations: string[];
    }[];
    relations: {
      /** The name of the entity where the relation starts */ from: string;
      /** The type of the relation */ relationType: string;
      /** The name of the entity where the relation ends */ to: string;
    }[];
  }>
>;
}
